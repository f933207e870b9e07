main_only: true
