{% set state = 'mdb2-driver-pgsql' %}
{% include "php/installed.jinja" %}
{% include "php/mdb2/init.sls" %}
