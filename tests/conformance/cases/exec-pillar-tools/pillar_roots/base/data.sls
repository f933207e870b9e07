role: web
roles: [db, cache]
port: 8080
ratio: 0.5
enabled: true
nothing: null
users:
  alice: {uid: 1001, shell: /bin/bash, keys: [a, b]}
  bob: {uid: 1002}
