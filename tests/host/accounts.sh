# Throwaway users and groups for the host tests that need real ones (sourced, after lib.sh;
# as root). Only what this run created is removed: remove_accounts, from the test's EXIT
# trap, after lib.sh's cleanup.
USERS=() GROUPS_MADE=()

remove_accounts() {
	local u g
	for u in "${USERS[@]}"; do userdel "$u" 2>/dev/null || echo "warning: userdel $u" >&2; done
	for g in "${GROUPS_MADE[@]}"; do groupdel "$g" 2>/dev/null || echo "warning: groupdel $g" >&2; done
}

# new_groups GROUP...: each created.
new_groups() {
	local g
	for g in "$@"; do
		groupadd "$g" || fail "groupadd $g"
		GROUPS_MADE+=("$g")
	done
}

# newuser NAME [GROUP]: a user without home or shell, primary group $GN, and GROUP as a
# supplementary one.
newuser() {
	useradd -M -N -d /nonexistent -s /usr/sbin/nologin -g "$GN" ${2:+-G "$2"} "$1" ||
		fail "useradd $1"
	USERS+=("$1")
}
