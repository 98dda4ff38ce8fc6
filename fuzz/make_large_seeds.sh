#!/usr/bin/env bash
# Writes seeds large enough to reach the costs that grow with the input (a reader quadratic in
# its elements takes seconds only on inputs of megabytes): an NCCL topology XML of about 3 MB
# (12,000 GPUs under distinct PCI bus ids) and a results CSV of 10,000 rows. The fuzzers' max_len
# (scripts/fuzz.sh) admits them.
#
#   fuzz/make_large_seeds.sh CORPUS_ROOT   (writes CORPUS_ROOT/<target>/large-*)
set -euo pipefail

corpus_root=${1:?usage: make_large_seeds.sh CORPUS_ROOT}
seeds_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/seeds"
mkdir -p "${corpus_root}/topology_nccl_xml" "${corpus_root}/results_csv"

awk 'BEGIN {
  print "<system version=\"1\">"
  for (cpu = 0; cpu < 2; ++cpu) {
    printf "  <cpu host_hash=\"0x78f0b88efeab5289\" numaid=\"%d\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" modelid=\"207\">\n", cpu
    for (i = 0; i < 6000; ++i) {
      printf "    <pci busid=\"%04x:%02x:%02x.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x2330\" subsystem_vendor=\"0x10de\" subsystem_device=\"0x16c1\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n", cpu, int(i / 32), i % 32
      printf "      <gpu dev=\"%d\" sm=\"90\" rank=\"%d\" gdr=\"1\"/>\n    </pci>\n", i, cpu * 6000 + i
    }
    print "  </cpu>"
  }
  print "</system>"
}' >"${corpus_root}/topology_nccl_xml/large-12000-gpus.xml"

# The seed's comment lines and header, then its data rows repeated to 10,000.
{
  grep -E '^(#|schema,)' "${seeds_dir}/results.csv"
  grep -vE '^(#|schema,)' "${seeds_dir}/results.csv" | awk '{ rows[n++] = $0 } END { for (i = 0; i < 10000; ++i) print rows[i % n] }'
} >"${corpus_root}/results_csv/large-10000-rows.csv"
