# The golden cases, sourced by golden_test.sh (which defines golden, the input folders and the
# imports). One line per case: golden NAME [FILES WRITTEN...] -- FABRICBENCH ARGUMENTS.
# shellcheck shell=bash disable=SC2154  # the folders are golden_test.sh's

cpu_thresholds="${repo}/plans/thresholds/cpu-mpi.yaml"
dgx_thresholds="${repo}/reports/thresholds/dgx_h100_8gpu.yaml"
ndr_thresholds="${repo}/reports/thresholds/ib_ndr_2node.yaml"
mpi_sample="${samples}/mpi_all_reduce_4ranks.json"

# --- diagnose: pairs joined to a topology, with and without the forwarding tables
golden diagnose_ftree8 -- diagnose --results "${golden}/ftree8/pairwise.json" --topology "${ftree}/ibnetdiscover.txt"
golden diagnose_ftree8_json findings.json -- diagnose --results "${golden}/ftree8/pairwise.json" \
  --topology "${ftree}/ibnetdiscover.txt" --json findings.json
golden diagnose_ftree8_routes -- diagnose --results "${golden}/ftree8/pairwise.json" \
  --topology "${ftree}/ibnetdiscover.txt" --routes "${ftree}/dump_fts.txt"
golden diagnose_ftree8_routes_json_plan findings.json confirm.txt drain.txt -- diagnose \
  --results "${golden}/ftree8/pairwise.json" --topology "${ftree}/ibnetdiscover.txt" \
  --routes "${ftree}/opensm-lfts.dump" --json findings.json --plan-confirm confirm.txt --drain-list drain.txt
golden diagnose_ftree8_job_mix -- diagnose --results "${golden}/ftree8/pairwise.json" \
  --topology "${ftree}/ibnetdiscover.txt" --routes "${ftree}/dump_fts.txt" --job-mix all_reduce:64M,alltoall:1G
golden diagnose_ftree8_no_topology findings.json -- diagnose --results "${golden}/ftree8/pairwise.json" \
  --json findings.json
golden diagnose_spec8_blocking -- diagnose --results "${golden}/spec8/pairwise.json" \
  --results "${golden}/spec8/concurrent.json" --topology "${specs}/blocking_2to1.yaml"
golden diagnose_spec8_blocking_json findings.json -- diagnose --results "${golden}/spec8/pairwise.json" \
  --results "${golden}/spec8/concurrent.json" --topology "${specs}/blocking_2to1.yaml" --json findings.json
golden diagnose_spec8_healthy_spec -- diagnose --results "${golden}/spec8/concurrent.json" \
  --topology "${specs}/healthy.yaml"
golden diagnose_spec8_soak findings.json -- diagnose --results "${golden}/spec8/soak.json" \
  --topology "${specs}/healthy.yaml" --json findings.json
golden diagnose_spec8_incident findings.json -- diagnose --results "${golden}/spec8/incident.json" \
  --topology "${specs}/healthy.yaml" --json findings.json
golden diagnose_spec8_incident_no_topology -- diagnose --results "${golden}/spec8/incident.json"
golden diagnose_collectives_sample -- diagnose --results "${mpi_sample}"
golden diagnose_a3mega_efficiency findings.json -- diagnose --results "${imports}/a3mega" \
  --topology "${examples}/h100-roce400.yaml" --json findings.json
golden diagnose_routes_without_topology -- diagnose --results "${golden}/ftree8/pairwise.json" \
  --routes "${ftree}/dump_fts.txt"
golden diagnose_routes_of_another_fabric -- diagnose --results "${golden}/ftree8/pairwise.json" \
  --topology "${topology_samples}/fabric.ibnet" --routes "${ftree}/dump_fts.txt"

# --- report: the HTML report (gnuplot's plots and Graphviz's drawing inline)
golden report_ftree8_topology report.html -- report "${golden}/ftree8/pairwise.json" \
  --topology "${ftree}/ibnetdiscover.txt" -o report.html
golden report_mpi_sample_thresholds report.html -- report "${mpi_sample}" --thresholds "${cpu_thresholds}" \
  -o report.html
golden report_a3mega_dgx_thresholds report.html -- report "${imports}/a3mega" --thresholds "${dgx_thresholds}" \
  -o report.html --fail-on fail
golden report_spark_compare report.html -- report --compare "${imports}/spark_normal" "${imports}/spark_degraded" \
  -o report.html
golden report_spec8_soak report.html -- report "${golden}/spec8/soak.json" -o report.html

# --- accept: shipped thresholds against shipped results; console, JSON, JUnit
golden accept_cpu_mpi -- accept "${mpi_sample}" --thresholds "${cpu_thresholds}"
golden accept_cpu_mpi_json_junit accept.json junit.xml -- accept "${mpi_sample}" --thresholds "${cpu_thresholds}" \
  --json accept.json --junit junit.xml
golden accept_no_thresholds -- accept "${mpi_sample}"
golden accept_a3mega_dgx -- accept "${imports}/a3mega" --thresholds "${dgx_thresholds}"
golden accept_a3mega_dgx_json_junit accept.json junit.xml -- accept "${imports}/a3mega" \
  --thresholds "${dgx_thresholds}" --json accept.json --junit junit.xml
golden accept_rtx5090_3reps_dgx accept.json -- accept "${imports}/rtx5090_3reps" --thresholds "${dgx_thresholds}" \
  --json accept.json
golden accept_mi300x_dgx -- accept "${imports}/mi300x" --thresholds "${dgx_thresholds}"
golden accept_osu_alps_ndr accept.json junit.xml -- accept "${imports}/osu_alps" --thresholds "${ndr_thresholds}" \
  --json accept.json --junit junit.xml
golden accept_ftree8_pairs_ndr accept.json -- accept "${golden}/ftree8/pairwise.json" \
  --thresholds "${ndr_thresholds}" --json accept.json
golden accept_nccl_2x4_dgx junit.xml -- accept "${imports}/nccl_2x4" --thresholds "${dgx_thresholds}" \
  --junit junit.xml

# --- compare: two result sets; console, JSON, CSV, and the exit code of --fail-on
golden compare_spark -- compare "${imports}/spark_normal" "${imports}/spark_degraded"
golden compare_spark_json_csv compare.json compare.csv -- compare "${imports}/spark_normal" \
  "${imports}/spark_degraded" --json compare.json --csv compare.csv
golden compare_spark_fail_on_regression -- compare "${imports}/spark_normal" "${imports}/spark_degraded" \
  --fail-on regression
golden compare_spark_reversed_csv_stdout -- compare "${imports}/spark_degraded" "${imports}/spark_normal" --csv -
golden compare_soak_against_pairs compare.json -- compare "${golden}/spec8/pairwise.json" \
  "${golden}/spec8/soak.json" --json compare.json --fail-on noisy
golden compare_fuzz_seeds_csv_json -- compare "${repo}/fuzz/seeds/results.csv" "${repo}/fuzz/seeds/results.json"

# --- topo: analyses, predictions and design comparisons of shipped specs and dumps
golden topo_analyze_dgx_pod analyze.json -- topo analyze "${topology_samples}/dgx_h100_pod.yaml" --json analyze.json
golden topo_analyze_ftree_ring -- topo analyze "${ftree}/ibnetdiscover.txt" --pattern ring
golden topo_analyze_rail_taper2 -- topo analyze "${examples}/h100-rail-roce400-taper2.yaml" --pattern bisection
golden topo_analyze_two_designs -- topo analyze "${examples}/h100-roce400.yaml" "${examples}/h100-roce800.yaml"
golden topo_predict_h100_roce400 predict.csv -- topo predict --spec "${examples}/h100-roce400.yaml" \
  --op all_reduce -b 1M -e 1G -f 4 --csv predict.csv
golden topo_predict_nvl72_alltoall predict.json -- topo predict --spec "${examples}/gb200-nvl72-x8.yaml" \
  --op alltoall -b 64K -e 256M -f 16 --json predict.json
golden topo_predict_dgx_pod_spread -- topo predict --spec "${topology_samples}/dgx_h100_pod.yaml" --op all_gather \
  -b 1M -e 1G -f 32 --nodes 8 --placement spread --nccl-version 2.21
golden topo_compare_nvl72_b200 compare.json compare.csv -- topo compare "${examples}/gb200-nvl72-x8.yaml" \
  "${examples}/hgx-b200-x72.yaml" --json compare.json --csv compare.csv
golden topo_compare_taper_html compare.html -- topo compare "${examples}/h100-128-taper1.yaml" \
  "${examples}/h100-128-taper2.yaml" --op all_reduce,alltoall --html compare.html

# --- history: a run store the test fills from shipped results (SQLite in the temporary folder)
golden history_ingest -- history --store "${store}" ingest "${golden}/spec8/pairwise.json" \
  "${golden}/spec8/soak.json" "${golden}/ftree8/pairwise.json" "${imports}/rtx5090_3reps" "${mpi_sample}"
golden history_ingest_again -- history --store "${store}" ingest "${golden}/spec8/soak.json"
golden history_runs -- history --store "${store}"
golden history_op_all_reduce history.json -- history --store "${store}" --op all_reduce --json history.json
golden history_host history.json -- history --store "${store}" --host h00007 --json history.json
golden history_pair -- history --store "${store}" --pair h00002,h00007
golden history_drift drain.txt -- history --store "${store}" drift --drain-list drain.txt

# --- import: what a log does not say, as warnings
golden import_a3mega_pasted_table -- import "${corpus}/nccl_test_result_a3mega_pasted_table_only.log" -o imported
