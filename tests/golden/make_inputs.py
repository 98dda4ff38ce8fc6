#!/usr/bin/env python3
"""Writes the golden test's pair-measurement inputs (tests/golden/inputs/) from fixed rules.

The repository ships logs and collective results, but no pairwise/concurrent results of a fabric
it also ships the topology of; the tests that need them simulate them in C++ at test time. The
golden test instead reads files that never change, so they are written once by this script and
committed: `tests/golden/make_inputs.py tests/golden/inputs`. Rerunning it writes the same bytes
(no clock, no random module: the spread is a fixed function of the row's index).

Each file holds one known fault, so the diagnosis has something to name:
  ftree8/pairwise.json       the 8 hosts of tests/topology/fixtures/forwarding/ftree (h001..h008):
                             h003's cable at a quarter, h001 -> h007 at a half, one row with wrong
                             elements (h005 -> h002)
  spec8/pairwise.json        the 8 hosts of tests/fabric/specs/*.yaml (h00001..h00008): h00006 at 60%
  spec8/concurrent.json      the halves cut of the same hosts, each pair alone, then all four at
                             once at half their alone bandwidth (what a 2:1 leaf costs)
  spec8/soak.json            pairwise over three repetitions; h00002 -> h00007 at 30% in the second
  spec8/incident.json        a pairwise run ended by a timeout in round 3: h00003's eth0 went down
"""

import json
import pathlib
import sys

SCHEMA = "fabricbench.results.v1"
BYTES = 4 << 20  # 4 MiB, the README's pairwise size


def provenance(run_id, hosts, command):
    return {
        "run_id": run_id,
        "tool_version": "0.1.0",
        "git_revision": "golden-input",
        "start_time": "2026-11-20T10:00:00Z",
        "command_line": command,
        "backend": "mpi",
        "nranks": len(hosts),
        "nodes": len(hosts),
        "ranks_per_node": 1,
        "rank_hosts": hosts,
        "kernel": "Linux 6.1.0 x86_64",
        "libraries": {"mpi_library": "Open MPI v4.1.4", "mpi_standard": "3.1"},
        "environment": {},
        "assumptions": [],
    }


def spread(index):
    """A deterministic +-2% around 1: the run-to-run spread of a healthy pair."""
    return 1.0 + ((index * 7919) % 41 - 20) / 1000.0


def row(run_id, hosts, op, src, dst, round_, flows, gbps, wrong=0, repetition=None):
    seconds = BYTES / (gbps * 1e9)
    time_us = seconds * 1e6
    result = {
        "schema": SCHEMA,
        "run_id": run_id,
        "backend": "mpi",
        "op": op,
        "dtype": "float",
        "redop": "none",
        "root": None,
        "in_place": False,
        "nranks": len(hosts),
        "nodes": len(hosts),
        "ranks_per_node": 1,
        "src_rank": src,
        "dst_rank": dst,
        "src_host": hosts[src],
        "dst_host": hosts[dst],
        "round": round_,
        "concurrent_flows": flows,
        "bytes": BYTES,
        "count": BYTES // 4,
        "iterations": 20,
        "time_min_us": time_us * 0.99,
        "time_median_us": time_us,
        "time_p99_us": time_us * 1.02,
        "time_max_us": time_us * 1.03,
        "time_cv": 0.01,
        "algbw_gbps": gbps,
        "busbw_gbps": gbps,
        "wrong": wrong,
        "timestamp": "2026-11-20T10:00:00Z",
    }
    if repetition is not None:
        result["repetition"] = repetition
    return result


def tournament(n):
    """Round-robin rounds of disjoint pairs (circle method): n-1 rounds, then the same reversed."""
    order = list(range(n))
    rounds = []
    for _ in range(n - 1):
        rounds.append([(order[i], order[n - 1 - i]) for i in range(n // 2)])
        order = [order[0], order[-1]] + order[1:-1]
    return rounds + [[(b, a) for a, b in pairs] for pairs in rounds]


def pairwise_rows(run_id, hosts, nominal_gbps, factor_of, repetition=None, wrong_pair=None):
    rows = []
    for r, pairs in enumerate(tournament(len(hosts)), start=1):
        for src, dst in pairs:
            index = len(rows) + 31 * (repetition or 0)
            gbps = nominal_gbps * spread(index) * factor_of(hosts[src], hosts[dst])
            wrong = 12 if wrong_pair == (hosts[src], hosts[dst]) else 0
            rows.append(row(run_id, hosts, "pairwise", src, dst, r, len(pairs), gbps, wrong, repetition))
    return rows


def write(path, run_id, hosts, command, rows, incidents=None):
    document = {"schema": SCHEMA, "provenance": provenance(run_id, hosts, command), "rows": rows}
    if incidents is not None:
        document["incidents"] = incidents
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1) + "\n")


def main(out):
    ftree = [f"h{i:03d}" for i in range(1, 9)]

    def ftree_fault(src, dst):
        factor = 0.25 if "h003" in (src, dst) else 1.0
        return factor * (0.5 if (src, dst) == ("h001", "h007") else 1.0)

    write(out / "ftree8/pairwise.json", "golden-ftree8-pairwise", ftree,
          "fabricbench run pairwise -b 4M -e 4M",
          pairwise_rows("golden-ftree8-pairwise", ftree, 0.95, ftree_fault, wrong_pair=("h005", "h002")))

    spec = [f"h{i:05d}" for i in range(1, 9)]
    write(out / "spec8/pairwise.json", "golden-spec8-pairwise", spec, "fabricbench run pairwise -b 4M -e 4M",
          pairwise_rows("golden-spec8-pairwise", spec, 0.118,
                        lambda s, d: 0.6 if "h00006" in (s, d) else 1.0))

    # The halves cut: host i with host i+4, each pair alone (its own round), then all at once.
    cut = [(i, i + 4) for i in range(4)] + [(i + 4, i) for i in range(4)]
    rows = []
    for n, (src, dst) in enumerate(cut):
        rows.append(row("golden-spec8-concurrent", spec, "concurrent", src, dst, n + 1, 1, 0.118 * spread(n)))
    for n, (src, dst) in enumerate(cut):
        together = 1 if n < 4 else 2
        rows.append(row("golden-spec8-concurrent", spec, "concurrent", src, dst, len(cut) + together, 4,
                        0.059 * spread(n + 8)))
    write(out / "spec8/concurrent.json", "golden-spec8-concurrent", spec, "fabricbench run concurrent -b 4M -e 4M",
          rows)

    soak = []
    for repetition in range(3):
        soak += pairwise_rows("golden-spec8-soak", spec, 0.118,
                              lambda s, d, r=repetition: 0.3 if r == 1 and (s, d) == ("h00002", "h00007") else 1.0,
                              repetition=repetition)
    write(out / "spec8/soak.json", "golden-spec8-soak", spec, "fabricbench run pairwise -b 4M -e 4M --repeat 3",
          soak)

    # Two rounds measured, the third never finished: h00003 (rank 2) silent, its eth0 down.
    measured = [r for r in pairwise_rows("golden-spec8-incident", spec, 0.118, lambda s, d: 1.0) if r["round"] <= 2]
    third = tournament(len(spec))[2]
    incident = {
        "kind": "timeout",
        "op": "pairwise",
        "case_label": f"bw {BYTES} B, 4 pairs at once",
        "bytes": BYTES,
        "dtype": "float",
        "in_place": False,
        "step": "timed iteration 3",
        "round": 3,
        "pairs_in_flight": [{"src_rank": s, "dst_rank": d, "src_host": spec[s], "dst_host": spec[d]} for s, d in third],
        "ranks_not_arrived": [{"rank": 2, "host": spec[2], "answered": False, "position": ""}],
        "ranks_arrived": [{"rank": r, "host": spec[r], "answered": True, "position": "timed iteration 3"}
                          for r in range(len(spec)) if r != 2],
        "links_lost": [{"host": spec[2], "link": "eth0", "ranks": [2]}],
        "deadline_s": 30.0,
        "stalled_s": 30.0,
        "message": "timeout in pairwise 4194304 B round 3: rank 2 on h00003 did not answer",
        "timestamp": "2026-11-20T10:00:05Z",
    }
    write(out / "spec8/incident.json", "golden-spec8-incident", spec, "fabricbench run pairwise -b 4M -e 4M",
          measured, [incident])


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent / "inputs"))
