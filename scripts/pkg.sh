# Sourced by scripts/deps.sh and by each driver's build.sh (bash): installs
# the Debian packages a step needs, once, and says what it installs.
#
#   want PACKAGE CHECK...   PACKAGE is needed unless CHECK... succeeds
#   install_wanted WHAT     installs the wanted packages with apt-get (one
#                           apt-get update per deps run); returns 0 when
#                           nothing is missing any more, else, where there
#                           is no apt-get (or no root and no sudo), says
#                           what WHAT lacks and returns $PKG_SKIPPED; the
#                           apt-get's status when it fails
#
# The callers run with set -e, but a function called left of || runs
# without it: each step here returns its first failure itself.
#
# Where install_wanted returns PKG_SKIPPED, the caller exits with it: deps.sh
# counts that step as skipped (the README's "a missing toolchain only skips
# the external drivers' tests") and goes on; an apt-get that fails is an
# error.

PKG_SKIPPED=3
pkg_wanted=()

want() {
  local pkg=$1
  shift
  "$@" >/dev/null 2>&1 || pkg_wanted+=("$pkg")
}

has() { command -v "$1" >/dev/null 2>&1; }

install_wanted() {
  # (the +-expansion: an empty array is "unbound" to bash < 4.4's set -u)
  local what=$1 sudo="" pkgs=(${pkg_wanted[@]+"${pkg_wanted[@]}"})
  pkg_wanted=()
  [ ${#pkgs[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    has sudo && sudo=sudo
  fi
  if ! has apt-get || { [ "$(id -u)" -ne 0 ] && [ -z "$sudo" ]; }; then
    echo "skipping $what: it needs ${pkgs[*]} (Debian names) and there is no apt-get (or no root or sudo): install them with your package manager" >&2
    return "$PKG_SKIPPED"
  fi
  if [ -z "${LOCKCHECK_APT_UPDATED:-}" ]; then
    $sudo apt-get update -qq || echo "warning: apt-get update failed: installing from the package lists there are" >&2
    export LOCKCHECK_APT_UPDATED=1
  fi
  echo "installing ${pkgs[*]} (for $what) ..." >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${pkgs[@]}" >/dev/null
}
