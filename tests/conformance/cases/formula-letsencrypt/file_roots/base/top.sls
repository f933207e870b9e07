base:
  '*':
    - letsencrypt
