base:
  '*':
    - common
dev:
  '*':
    - from_base_top
