base:
  '*':
    - fail2ban
