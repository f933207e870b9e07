{% set port = 8080 if grains['datacenter'] == 'ams1' else 80 %}
nginx:
  port: {{ port }}
  server_name: {{ grains['id'] }}
  worker_processes: {{ grains.get('num_cpus', 1) }}
