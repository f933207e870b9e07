base:
  '*':
    - firewalld
