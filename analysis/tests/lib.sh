# Sourced by the analyzer's test scripts.

# check STATUS DESCRIPTION: a TAP-style "ok - ..." or "not ok - ..." line
check() {
	if [ "$1" -eq 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi
}
