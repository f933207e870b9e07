{% set state = 'mongodb' %}
{% include "php/installed.jinja" %}
