# Measures tact's start-up to first frame and idle RSS on a pseudo-terminal
# that answers the terminal queries (background colour, cursor position) the
# way a terminal emulator does.
# Usage: python3 test/perf/startup.py [RUNS] (after `make build`).
import os, pty, time, sys, select, fcntl, termios, struct, tempfile
BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bin", "tact")
STATE = tempfile.mkdtemp(prefix="tact-perf-")
def once():
    t0=time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.pop("OPENAI_API_KEY", None)
        os.environ["XDG_STATE_HOME"]=STATE
        os.chdir(STATE)
        os.environ["TERM"]="xterm-256color"
        os.execv(BIN, ["tact"])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    buf=b""; first=None
    while time.perf_counter()-t0 < 10:
        r,_,_=select.select([fd],[],[],5)
        if not r: break
        d=os.read(fd, 65536); buf+=d
        if b"\x1b]11;?" in d: os.write(fd, b"\x1b]11;rgb:0000/0000/0000\x1b\\")
        if b"\x1b[6n" in d: os.write(fd, b"\x1b[1;1R")
        if b"tools" in buf:
            first=time.perf_counter()-t0; break
    time.sleep(1.0)
    rss=[l for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS")][0].split()[1]
    os.kill(pid, 9); os.waitpid(pid,0)
    return first, int(rss)
res=[once() for _ in range(int(sys.argv[1]) if len(sys.argv)>1 else 10)]
ff=sorted(r[0]*1000 for r in res if r[0]); rs=sorted(r[1]/1024 for r in res)
print("first frame ms: median %.1f min %.1f max %.1f (n=%d)"%(ff[len(ff)//2], ff[0], ff[-1], len(ff)))
print("idle RSS MB: median %.1f max %.1f"%(rs[len(rs)//2], rs[-1]))
