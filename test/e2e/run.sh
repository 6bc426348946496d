#!/usr/bin/env bash
# End-to-end test of the real binary in a real terminal: tmux runs bin/tact,
# send-keys types as a person would, capture-pane reads the screen.
#   1. against a fake OpenAI-compatible server (test/e2e/fakeserver): type a
#      prompt, approve a shell call with `y`, read the final answer;
#   2. on the offline demo model (no key): "what is 15*23" shows a calculator
#      call and 345; "run ls" opens the approval pane.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BIN=${TACT_BIN:-$ROOT/bin/tact}
[ -x "$BIN" ] || go build -o "$BIN" .
command -v tmux >/dev/null || { echo "e2e: tmux is missing (apt-get install tmux)"; exit 1; }

WORK=$(mktemp -d)
SOCK="$WORK/tmux.sock"
T="tmux -S $SOCK"
cleanup() {
  $T kill-server 2>/dev/null || true
  [ -n "${FAKE_PID:-}" ] && kill "$FAKE_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
  echo "e2e FAIL: $*"
  echo "----- screen -----"
  $T capture-pane -p -t "$SESSION" 2>/dev/null || true
  echo "------------------"
  exit 1
}

# wait_for TEXT [SECONDS]: poll the screen until TEXT shows.
wait_for() {
  local text=$1 secs=${2:-20} i
  for ((i = 0; i < secs * 10; i++)); do
    if $T capture-pane -p -t "$SESSION" 2>/dev/null | grep -qF -- "$text"; then
      return 0
    fi
    sleep 0.1
  done
  fail "waited ${secs}s for: $text"
}

# wait_idle: wait until no turn is running (the help line offers "enter send").
wait_idle() {
  local i
  for ((i = 0; i < 200; i++)); do
    if ! $T capture-pane -p -t "$SESSION" | grep -qF "esc cancel"; then
      return 0
    fi
    sleep 0.1
  done
  fail "the turn did not end"
}

start_tact() { # start_tact NAME ENV... -- ARGS...
  SESSION=$1; shift
  local envs=() args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  args=("$@")
  mkdir -p "$WORK/$SESSION/home" "$WORK/$SESSION/work"
  echo "hello" > "$WORK/$SESSION/work/notes.txt"
  $T new-session -d -s "$SESSION" -x 110 -y 35 -c "$WORK/$SESSION/work" \
    env -i PATH="$PATH" TERM=xterm-256color HOME="$WORK/$SESSION/home" \
    XDG_STATE_HOME="$WORK/$SESSION/home/state" XDG_CONFIG_HOME="$WORK/$SESSION/home/config" \
    "${envs[@]}" "$BIN" "${args[@]}"
}

# --- 1. fake server, approve a shell call ---------------------------------
go build -o "$WORK/fakeserver" ./test/e2e/fakeserver
"$WORK/fakeserver" -addr-file "$WORK/addr" >/dev/null 2>&1 &
FAKE_PID=$!
for _ in $(seq 50); do [ -s "$WORK/addr" ] && break; sleep 0.1; done
[ -s "$WORK/addr" ] || { echo "e2e FAIL: fake server did not start"; exit 1; }
URL=$(cat "$WORK/addr")

start_tact fake OPENAI_API_KEY=test -- --base-url "$URL" --model fake-model
wait_for "fake-model"
$T send-keys -t fake "run echo hello-from-tmux" Enter
wait_for "echo hello-from-tmux"
wait_for "allow once"
$T send-keys -t fake y
wait_for "The command printed"
wait_for "hello-from-tmux — done" 5 || true
$T capture-pane -p -t fake | grep -q "hello-from-tmux" || fail "the shell output did not reach the answer"
echo "e2e: approve shell with y — ok"
$T send-keys -t fake C-c
$T send-keys -t fake C-c
sleep 0.3

# --- 2. offline demo model -------------------------------------------------
start_tact demo -- 
wait_for "offline"
$T send-keys -t demo "what is 15*23" Enter
wait_for "345"
wait_idle
$T capture-pane -p -t demo | grep -q "calculator" || fail "no calculator call shown"
echo "e2e: demo calculator — ok"
$T send-keys -t demo "run ls" Enter
wait_for "allow once"
$T capture-pane -p -t demo | grep -q "shell" || fail "the approval pane does not name the shell tool"
$T send-keys -t demo n
wait_for "denied"
echo "e2e: demo approval pane — ok"
echo "e2e: 3 passed, 0 failed"
