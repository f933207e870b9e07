base:
  '*':
    - mysql
