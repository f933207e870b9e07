base:
  '*':
    - prometheus
