-- An application's own first migration, for FlywayMigrationContractTest.
CREATE TABLE app_customers (id BIGINT PRIMARY KEY, name VARCHAR(64) NOT NULL);
