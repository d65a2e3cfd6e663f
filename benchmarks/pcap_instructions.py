"""Instructions per ``parse`` of a pcap capture, in each byte order, in both tiers.

A user's spec (tests/data/user_specs/pcap.yaml: the magic chooses the byte order, each
packet's data is read by the file header's link type) generated and built as a user
builds it (``wirespec generate --specs DIR --out PKG --compiled``, into a temporary
directory), then ``valgrind --tool=cachegrind --cache-sim=no`` on this script twice per
order and tier: parse the capture (tests/data/user_specs/pcap_udp.pcap's three packets,
34 times: 102 packets) 20 times to warm up, ``gc.freeze()``, then ``--n`` times or none;
it prints the difference divided by ``--n``, and by packet. The tier is the one the module
loads: compiled where its extension is built, pure Python (the quick tier) under
``WIRESPEC_PURE_PYTHON=1``. Needs valgrind and a C compiler. ``--cut``: the spec with
``on_cut: keep`` on its packets (as tests/test_cut_files.py keeps them), the capture whole
and cut ``CUT`` bytes before its end (inside its last packet).

    python -m benchmarks.pcap_instructions [--n 20] [--cut]
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

from benchmarks.user_specs import TIERS, USER_SPECS, built_package, instructions_per_call, load

BENCHMARK = "benchmarks.pcap_instructions"
ORDERS = ("le", "be")
COPIES = 34
WARM_UP = 20
CUT = 5
KEEPING = ("repeat: eos,", "repeat: eos, on_cut: keep,")
"""``--cut``'s edit of the spec: its packets keep a cut."""


def capture(package: Path, order: str):
    """(the user's module, a capture of ``COPIES`` times the sample's packets in ``order``)."""
    module = load(package, "pcap")
    model = module.parse((USER_SPECS / "pcap_udp.pcap").read_bytes())
    model.capture.packets *= COPIES
    model.magic = module.PcapMagic.MICRO_LE if order == "le" else module.PcapMagic.MICRO_BE
    return module, module.build(model)


def _parse(package: str, workload: str, n: int) -> None:
    """The measured process: ``workload`` is an order, and ``cut`` after it for a cut
    capture."""
    order, *cut = workload.split()
    module, data = capture(Path(package), order)
    if cut:
        data = data[:-CUT]
        assert module.parse(data).capture.packets_cut is not None
    for _ in range(WARM_UP):
        module.parse(data)
    gc.freeze()
    for _ in range(n):
        module.parse(data)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20, help="parses in the measured run")
    ap.add_argument("--cut", action="store_true", help="on_cut: keep, whole and cut captures")
    ap.add_argument("--run", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:
        _parse(args.run[0], args.run[1], int(args.run[2]))
        return 0
    edit = (lambda text: text.replace(*KEEPING)) if args.cut else None
    workloads = [f"{o}{shape}" for o in ORDERS for shape in (("", " cut") if args.cut else ("",))]
    with built_package("pcap.yaml", edit) as package:
        if package is None:
            return 1
        packets = 3 * COPIES
        print("| tier | order | instructions/parse | instructions/packet |")
        print("|---|---|---:|---:|")
        for tier, env in TIERS.items():
            for workload in workloads:
                per = instructions_per_call(BENCHMARK, package, workload, args.n, env)
                print(f"| {tier} | {workload} | {per:,.0f} | {per / packets:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
