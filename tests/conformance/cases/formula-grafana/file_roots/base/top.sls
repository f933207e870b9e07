base:
  '*':
    - grafana
