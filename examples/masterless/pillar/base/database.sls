db_password: only-for-db-minions
