"""A minimal MCP client for the benchmark scripts: `mapgrep serve` spoken to directly over
stdio, one JSON-RPC message per line, its log (stderr) kept, its CPU time, I/O and memory
read from /proc."""

import json
import os
import subprocess
import sys
import threading
import time


class Client:
    def __init__(self, cmd, name="bench"):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.log = []
        threading.Thread(target=self._drain, daemon=True).start()
        self.next = 1
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": name, "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _drain(self):
        for line in self.p.stderr:
            self.log.append(line.decode(errors="replace").rstrip("\n"))

    def send(self, o):
        self.p.stdin.write(json.dumps(o).encode() + b"\n")
        self.p.stdin.flush()

    def request(self, method, params):
        """The response to one request, the seconds from sending it to its last byte, and
        its size in bytes."""
        i = self.next
        self.next += 1
        t = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        while True:
            line = self.p.stdout.readline()
            dt = time.perf_counter() - t
            if not line:
                sys.exit("the server closed its output:\n" + "\n".join(self.log[-20:]))
            m = json.loads(line)
            if m.get("id") == i:
                return dt, m, len(line)

    def call(self, method, params):
        return self.request(method, params)[1]

    def cpu(self):
        """User + system CPU seconds of the server so far."""
        with open(f"/proc/{self.p.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def io(self):
        out = {}
        with open(f"/proc/{self.p.pid}/io") as f:
            for line in f:
                k, _, v = line.partition(":")
                out[k] = int(v)
        return out

    def memory(self):
        out = {}
        with open(f"/proc/{self.p.pid}/smaps_rollup") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("Rss", "Anonymous"):
                    out[k] = int(v.split()[0]) * 1024
        return out

    def wait_log(self, words, limit=900):
        """Waits for a log line holding one of `words`."""
        t = time.time()
        while time.time() - t < limit:
            if any(w in line for line in list(self.log) for w in words):
                return
            time.sleep(0.05)
        sys.exit("not in the log in time:\n" + "\n".join(self.log[-20:]))

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
