base:
  '*':
    - a
    - 'web*'
dev:
  'm1':
    - d1
