{% for name in admins %}
{{ name }}:
  sudo: yes
  shell: /bin/bash
{% endfor %}
