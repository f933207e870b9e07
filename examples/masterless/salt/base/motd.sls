motd:
  file.managed:
    - name: /tmp/brine-example-motd
    - contents: Welcome to {{ grains['id'] }} ({{ pillar['company'] }})
