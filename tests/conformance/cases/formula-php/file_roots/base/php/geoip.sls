{% set state = 'geoip' %}
{% include "php/installed.jinja" %}
