base:
  '*':
    - clamav
