app:
  port: 80
  users: [a]
  only_pillar: yes
shared: pillar
master:
  from_master: 1
  app:
    level: master
