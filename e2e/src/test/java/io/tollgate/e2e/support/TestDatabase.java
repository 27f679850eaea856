package io.tollgate.e2e.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;

/**
 * A PostgreSQL database of the tests' own on the machine's server ({@code TOLLGATE_TEST_PG_HOST}/{@code _PORT}/
 * {@code _USER}, default 127.0.0.1:5432 postgres, trust auth), made at start and dropped at close.
 */
public final class TestDatabase implements AutoCloseable {

    private final String host = env("TOLLGATE_TEST_PG_HOST", "127.0.0.1");
    private final String port = env("TOLLGATE_TEST_PG_PORT", "5432");
    private final String user = env("TOLLGATE_TEST_PG_USER", "postgres");
    private final String name = "tollgate_e2e_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12)
            .toLowerCase(Locale.ROOT);

    public TestDatabase() {
        execute("create database " + name);
    }

    public String reactiveUrl() {
        return "postgresql://" + host + ":" + port + "/" + name;
    }

    public String jdbcUrl() {
        return "jdbc:postgresql://" + host + ":" + port + "/" + name;
    }

    public String user() {
        return user;
    }

    public String host() {
        return host;
    }

    public String port() {
        return port;
    }

    /** The database's name, made for this test alone. */
    public String name() {
        return name;
    }

    @Override
    public void close() {
        execute("drop database if exists " + name + " with (force)");
    }

    private void execute(String sql) {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/postgres", user, "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + " failed on " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    private static String env(String key, String fallback) {
        String value = System.getenv(key);
        return value == null || value.isBlank() ? fallback : value;
    }
}
