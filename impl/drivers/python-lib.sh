# Sourced by the Python drivers' build.sh (bash, in the driver's folder):
# Debian's python3 and python3-venv, then the driver's own virtualenv (.venv,
# from /usr/bin/python3) with the packages of requirements.txt, pinned with
# hashes, when it is missing or older than requirements.txt.
. ../../../scripts/pkg.sh

# build_venv NAME: installs the driver in impl/drivers/NAME; returns
# PKG_SKIPPED when python3 or its venv module is missing and cannot be
# installed here.
build_venv() {
  want python3 test -x /usr/bin/python3
  want python3-venv /usr/bin/python3 -c 'import ensurepip'
  install_wanted "the $1 driver" || return
  if [ -f .venv/.installed ] && [ ! requirements.txt -nt .venv/.installed ]; then
    return 0
  fi
  echo "creating the virtualenv of impl/drivers/$1 ..." >&2
  rm -rf .venv
  /usr/bin/python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check --require-hashes -r requirements.txt
  touch .venv/.installed
}
