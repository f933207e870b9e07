include:
  - users:
      defaults:
        admins: [alice, bob]
      key: accounts

company: Example Corp
ntp_servers:
  - 0.pool.ntp.org
  - 1.pool.ntp.org
