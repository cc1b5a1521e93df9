#!/usr/bin/env bash
# The results pages' tables (and the figures they link to) from the stored result sets in
# docs/results/data/ (`make docs-data` makes them). Each command rewrites its own block of the
# page, between the markers naming its results; tests/docs/test_results_pages.py checks that
# every block is what its command makes. The verdict tables of the papers' claims come from the
# full-size runs stored in docs/results/data/reproduce/ (tests/docs/test_claims_pages.py).
set -euo pipefail
GM=${GRIDMARKET:-.venv/bin/gridmarket}
D=docs/results

report() {  # report NAME PAGE METRICS
  "$GM" report "$D/data/$1" --out "$D/figures/$1" --metrics "$3" --markdown "$D/$2" > /dev/null
  echo "$D/$2: $1"
}

report profit-fig3 profit.md profit_rate,accepted_pct,mean_processors,realised_pct
report profit-fig7 profit.md accepted_pct,profit_rate,profit_rate_arrivals,mean_processors
report qops-sdsc qops.md unadmitted_pct,unadmitted_work_pct,utilization,deadlines_missed
report vqops-sdsc vqops.md revenue,urgent_accepted_pct,normal_accepted_pct,deadlines_missed
report libra-fig1 libra.md deadlines_fulfilled_pct,mean_slowdown_fulfilled,accepted_pct
report varq-table4 varq.md varq_predicted_pct,varq_success_pct,varq_jobs,overhead_ratio
report market-price-war market.md market_share_pct,mean_price,profit

for paper in profit qops vqops libra varq; do  # the verdict tables, from the stored runs
  "$GM" reproduce "$paper" --stored --out "$D/data/reproduce/$paper" \
      --markdown "$D/$paper-claims.md" > /dev/null
  echo "$D/$paper-claims.md: reproduce $paper"
done
