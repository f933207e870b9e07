base:
  '*':
    - hello
