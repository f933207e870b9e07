base:
  '*':
    - ord
