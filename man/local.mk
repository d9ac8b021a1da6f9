# Manual pages: each part appends its own pages here.
dist_man_MANS += man/man8/priority_fairway.8
dist_man_MANS += man/man1/fairway-report.1
dist_man_MANS += man/man8/spank_fairway.8
dist_man_MANS += man/man5/fairway-presets.5
dist_man_MANS += man/man8/job_submit_fairway.8
dist_man_MANS += man/man8/fairway-bridge.8
dist_man_MANS += man/man5/fairway-bridge.yaml.5
dist_man_MANS += man/man1/fairway-sim.1
