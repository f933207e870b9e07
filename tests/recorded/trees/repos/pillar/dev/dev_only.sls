dev_only: true
