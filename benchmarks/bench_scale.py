"""Ten million URLs: `sitemapkit generate` and `sitemapkit urls` at scale, whole process, peak RSS.

    python benchmarks/bench_scale.py                 # 10,000,000 URLs (input made once: 600 MB in _work/bench_scale)
    python benchmarks/bench_scale.py --urls 1000000  # a smaller run
    python benchmarks/bench_scale.py --gzip          # generate .xml.gz files (less disk; urls then inflates)

Jobs, each a fresh `python -m sitemapkit` process, output to /dev/null:

- generate: `generate urls.txt -o OUT --base-url https://example.com/` from a text file of realistic URLs
  (`https://example.com/section-17/item-123456?ref=list&page=3`: every loc needs `&amp;`), 50,000 a file
  (200 files + the index for ten million);
- urls-files: `urls --format text` over the 200 child files, named on the command line (a local index is read as
  a document: `urls INDEX` lists its children; following an index is what URL sources do);
- urls-http: `urls http://127.0.0.1:PORT/index.xml --format text`: the same files served by a local server
  (nginx when installed, else `python -m http.server`), the index walked down to its 200 sitemaps. The index
  served lists the children at the server's address (the published one names https://example.com/).

Each job reports wall time, URLs/s, peak RSS from `wait4` (ru_maxrss) and the RSS curve sampled from
/proc/PID/status every `--sample` seconds (VmRSS; VmHWM is the kernel's high-water mark, a check on the peak).
The input (urls.txt) is written once under benchmarks/_work/bench_scale/ and reused; the generated set is rewritten by
each run (it is the thing measured). This process stays small (the input is streamed), so a child's ru_maxrss,
which starts from the parent's at fork, is the child's own.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work" / "bench_scale"
TARGET_MB = 60.0


def url_line(i: int) -> str:
    return f"https://example.com/section-{i % 97}/item-{i}?ref=list&page={i % 10}\n"


def make_input(n: int) -> Path:
    """The text input, written once per size (streamed: this process never holds it)."""
    path = WORK / f"urls-{n}.txt"
    if path.exists():
        return path
    WORK.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".part")
    with tmp.open("w", encoding="ascii") as f:
        step = 100_000
        for start in range(0, n, step):
            f.write("".join(url_line(i) for i in range(start, min(n, start + step))))
    tmp.replace(path)
    return path


def child_env() -> dict[str, str]:
    """The environment of a user's shell: bytecode cached (in _work, not in the checkout) and stdout buffered.
    A session may set PYTHONDONTWRITEBYTECODE (every module compiled from source at each start, ~0.2 s) and
    PYTHONUNBUFFERED (a write() system call for every write to stdout); neither is what users run with."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED")}
    env["PYTHONPYCACHEPREFIX"] = str(WORK / "pycache")
    return env


def _proc_status(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM of ``pid`` in MB (empty once it is gone)."""
    out: dict[str, float] = {}
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    key, value = line.split(":", 1)
                    out[key] = int(value.split()[0]) / 1024
    except (OSError, ValueError):
        pass
    return out


def run(cmd: list[str], sample: float) -> dict[str, object]:
    """Run ``cmd`` with stdout to /dev/null; wall time, exit status, ru_maxrss, samples, stderr tail."""
    err_path = WORK / "last.stderr"
    with open(os.devnull, "wb") as devnull, err_path.open("wb") as err:
        started = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=devnull, stderr=err, env=child_env())
        samples: list[tuple[float, float]] = []
        hwm = [0.0]
        stop = threading.Event()

        def sampler() -> None:
            while not stop.wait(sample):
                st = _proc_status(proc.pid)
                if "VmRSS" in st:
                    samples.append((time.perf_counter() - started, st["VmRSS"]))
                    hwm[0] = max(hwm[0], st.get("VmHWM", 0.0))

        thread = threading.Thread(target=sampler, daemon=True)
        thread.start()
        _, status, rusage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        stop.set()
        thread.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
    tail = err_path.read_text(errors="replace").strip().splitlines()[-3:]
    return {"wall": wall, "rc": proc.returncode, "maxrss": rusage.ru_maxrss / 1024, "hwm": hwm[0],
            "cpu": rusage.ru_utime + rusage.ru_stime, "samples": samples, "stderr": tail}


def curve(samples: list[tuple[float, float]], points: int = 12) -> str:
    """The RSS curve at ``points`` evenly spaced samples: ``t=12s 41.2``..."""
    if not samples:
        return "(no samples)"
    idx = sorted({round(k * (len(samples) - 1) / (points - 1)) for k in range(points)})
    return "  ".join(f"{samples[i][0]:.0f}s:{samples[i][1]:.1f}" for i in idx)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(root: Path, port: int) -> tuple[subprocess.Popen[bytes], str]:
    nginx = shutil.which("nginx")
    if nginx:
        conf = WORK / "nginx.conf"
        conf.write_text(
            f"daemon off; worker_processes 1; pid {WORK / 'nginx.pid'}; error_log {WORK / 'nginx.err'};\n"
            f"events {{}}\nhttp {{ access_log off; types {{ application/xml xml; application/gzip gz; }}\n"
            f"  client_body_temp_path {WORK}; proxy_temp_path {WORK}; fastcgi_temp_path {WORK};\n"
            f"  uwsgi_temp_path {WORK}; scgi_temp_path {WORK};\n"
            f"  server {{ listen 127.0.0.1:{port}; root {root}; }} }}\n", encoding="ascii")
        proc = subprocess.Popen([nginx, "-c", str(conf), "-p", str(WORK)], stderr=subprocess.DEVNULL)
        name = "nginx"
    else:
        proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                                 "--directory", str(root)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        name = "python http.server"
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, name
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"the {name} server did not start")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--urls", type=int, default=10_000_000)
    ap.add_argument("--gzip", action="store_true", help="generate .xml.gz files")
    ap.add_argument("--sample", type=float, default=1.0, help="seconds between RSS samples")
    ap.add_argument("--jobs", default="generate,urls-files,urls-http")
    ap.add_argument("--http-args", default="", help="extra options for urls-http, e.g. '--concurrency 2'")
    args = ap.parse_args()
    jobs = args.jobs.split(",")
    py = [sys.executable, "-m", "sitemapkit"]
    source = make_input(args.urls)
    out = WORK / f"out-{args.urls}{'-gz' if args.gzip else ''}"  # one set per size: a smaller run keeps the big one
    ext = ".xml.gz" if args.gzip else ".xml"
    print(f"machine: nproc {os.cpu_count()}, {os.uname().machine}, load {os.getloadavg()[0]:.2f} at start; "
          f"input {source.name} ({source.stat().st_size / 1e6:.0f} MB); children without PYTHONUNBUFFERED and "
          "PYTHONDONTWRITEBYTECODE, bytecode in _work/bench_scale/pycache")
    subprocess.run([sys.executable, "-c", "import sitemapkit.cli._urls, sitemapkit.cli._generate, aiohttp"],
                   env=child_env(), check=True)  # bytecode written once, before anything is timed
    rows: list[tuple[str, dict[str, object]]] = []
    if "generate" in jobs:
        res = run([*py, "generate", str(source), "-o", str(out), "--base-url", "https://example.com/",
                   *(["--gzip"] if args.gzip else [])], args.sample)
        rows.append(("generate", res))
    index = out / f"sitemap{ext}"
    children = sorted(p for p in out.glob(f"sitemap-*{ext}"))
    if not index.exists() or not children:
        raise SystemExit(f"no generated set in {out}: run the generate job first")
    if "urls-files" in jobs:
        rows.append(("urls-files", run([*py, "urls", "--format", "text", *map(str, children)], args.sample)))
    if "urls-http" in jobs:
        port = free_port()
        served = out / "index-local.xml"  # the published index names example.com: this one names the server
        served.write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            + "".join(f"<sitemap><loc>http://127.0.0.1:{port}/{c.name}</loc></sitemap>\n" for c in children)
            + "</sitemapindex>\n", encoding="ascii")
        server, server_name = start_server(out, port)
        try:
            res = run([*py, "urls", "--format", "text", f"http://127.0.0.1:{port}/{served.name}",
                       *args.http_args.split()], args.sample)
        finally:
            server.terminate()
            server.wait()
        res["server"] = server_name + (f"; {args.http_args}" if args.http_args else "")
        rows.append(("urls-http", res))
    disk = sum(p.stat().st_size for p in children) / 1e6
    print(f"{len(children)} files, {disk:,.0f} MB{' (gzip)' if args.gzip else ''}; load {os.getloadavg()[0]:.2f} "
          "at end\n")
    print(f"| job | URLs | wall s | URLs/s | CPU s | peak RSS MB (wait4) | VmHWM MB | < {TARGET_MB:.0f} MB | exit |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, r in rows:
        wall, rss = float(r["wall"]), float(r["maxrss"])  # type: ignore[arg-type]
        print(f"| {name}{' (' + str(r['server']) + ')' if 'server' in r else ''} | {args.urls:,} | {wall:.1f} | "
              f"{args.urls / wall:,.0f} | {float(r['cpu']):.1f} | {rss:.1f} | {float(r['hwm']):.1f} | "  # type: ignore[arg-type]
              f"{'yes' if rss < TARGET_MB else 'NO'} | {r['rc']} |")
    print("\nRSS curves (seconds: VmRSS MB):")
    for name, r in rows:
        print(f"- {name}: {curve(r['samples'])}")  # type: ignore[arg-type]
        if r["rc"] not in (0,):
            print(f"  stderr: {r['stderr']}")


if __name__ == "__main__":
    main()
