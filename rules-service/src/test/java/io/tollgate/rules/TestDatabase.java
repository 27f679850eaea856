package io.tollgate.rules;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;

import org.jboss.logging.Logger;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * A PostgreSQL database of the tests' own, {@code tollgate_test_<random>}, created on the local server
 * through the {@code postgres} database before the app starts and dropped after the last test.
 * {@code TOLLGATE_TEST_PG} (host:port) points elsewhere than 127.0.0.1:5432.
 */
public class TestDatabase implements QuarkusTestResourceLifecycleManager {

    private static final Logger LOG = Logger.getLogger(TestDatabase.class);
    private static final String SERVER = System.getenv().getOrDefault("TOLLGATE_TEST_PG", "127.0.0.1:5432");
    private static final String USER = "postgres";

    private static volatile String current;
    private String name;

    @Override
    public Map<String, String> start() {
        name = "tollgate_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        admin("CREATE DATABASE " + name);
        LOG.infof("created test database %s", name);
        current = name;
        return Map.of(
                "quarkus.datasource.jdbc.url", jdbcUrl(name),
                "quarkus.datasource.reactive.url", reactiveUrl(name),
                "quarkus.datasource.username", USER);
    }

    @Override
    public void stop() {
        if (name != null) {
            admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            LOG.infof("dropped test database %s", name);
        }
    }

    /** The name of the database the tests run against now. */
    public static String current() {
        return current;
    }

    /** The reactive-client URL of a database on the test server. */
    public static String reactiveUrl(String database) {
        return "postgresql://" + SERVER + "/" + database;
    }

    /** The JDBC URL of a database on the test server. */
    public static String jdbcUrl(String database) {
        return "jdbc:postgresql://" + SERVER + "/" + database;
    }

    private static void admin(String sql) {
        try (Connection c = DriverManager.getConnection(jdbcUrl("postgres"), USER, "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL at " + SERVER + ": " + sql, e);
        }
    }
}
