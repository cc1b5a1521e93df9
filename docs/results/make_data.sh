#!/usr/bin/env bash
# The small result sets behind the results pages (docs/results/*.md): quick versions of each
# paper's sweeps, a few KB of Parquet each. `make docs-data` runs this (a few minutes; the trace
# sweeps need the SWF traces on GRIDMARKET_TRACES); then `make docs-results` rewrites the pages'
# tables from them. The full-size commands are on each results page.
set -euo pipefail
GM=${GRIDMARKET:-.venv/bin/gridmarket}
DATA=docs/results/data

sweep() {  # sweep NAME SCENARIO --set ...
  local name=$1 scenario=$2
  shift 2
  rm -rf "$DATA/$name"
  "$GM" sweep "$scenario" --workers 1 --out "$DATA/$name" "$@" > /dev/null
  rm -f "$DATA/$name/.lock"
  echo "$DATA/$name"
}

sweep profit-fig3 profit/fig3_load --set clients.0.workload.jobs=60 \
  --set sweep.replications=2 \
  --set 'sweep.parameters={clients.0.workload.mean_interarrival: [0.05, 0.15, 0.5, 1.0]}'
sweep profit-fig7 profit/fig7_uncertainty --set clients.0.workload.jobs=60 \
  --set sweep.replications=2 \
  --set 'sweep.parameters={resource_providers.0.uncertainty.sigma: [0, 2, 4]}'
sweep qops-sdsc qops/sdsc_load --set clients.0.workload.first_jobs=300 \
  --set 'sweep.parameters={clients.0.workload.load_factor: [1.0, 1.6], clients.0.workload.stringency: [0.2, 0.5]}'
sweep vqops-sdsc vqops/table1_sdsc --set clients.0.workload.first_jobs=500 \
  --set 'sweep.parameters={clients.0.workload.load_factor: [1.0, 1.4], clients.0.workload.urgent_cost: [2.0, 10.0], clients.0.workload.urgent_fraction: [0.8]}'
sweep libra-fig1 libra/fig1_load --set clients.0.workload.last_jobs=300 \
  --set sweep.replications=1 \
  --set 'sweep.parameters={clients.0.workload.arrival_delay_factor: [0.1, 0.4, 1.0], clients.0.workload.estimates: [exact, trace]}'
sweep varq-table4 varq/table4 --set 'variants={}' --set batch_sites.0.first_jobs=2000 \
  --set 'sweep.parameters={batch_sites.0.varq.fraction: [0.1, 0.95], batch_sites.0.varq.probability: [0.5, 0.95]}'
sweep market-price-war market/price_war --set clients.0.workload.jobs=100 \
  --set sweep.replications=2 \
  --set 'sweep.parameters={service_providers.0.pricing.params.markup: [0.3], service_providers.1.pricing.params.markup: [0.0, 0.3, 1.0]}' \
  --set 'sweep.labels={service_providers.0.pricing.params.markup: markup of a, service_providers.1.pricing.params.markup: markup of b}'
