package io.tollgate.rules;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

import org.flywaydb.core.Flyway;

import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;

/**
 * A database of one test's own on the test server, migrated by the service's Flyway scripts, with a reactive pool
 * on a Vert.x of its own: for the store classes tested without the app, several sets of them on one database
 * standing for several instances. Dropped on close.
 */
public final class FreshDatabase implements AutoCloseable {

    private final String name = "tollgate_unit_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final Vertx vertx = Vertx.vertx();

    public FreshDatabase() {
        admin("CREATE DATABASE " + name);
        Flyway.configure().dataSource(TestDatabase.jdbcUrl(name), "postgres", "").load().migrate();
    }

    /** A new pool on this database, closed with it. */
    public io.vertx.mutiny.sqlclient.Pool pool() {
        PgConnectOptions options = PgConnectOptions.fromUri(TestDatabase.reactiveUrl(name)).setUser("postgres");
        return io.vertx.mutiny.sqlclient.Pool.newInstance(
                PgBuilder.pool().with(new PoolOptions().setMaxSize(2)).connectingTo(options).using(vertx).build());
    }

    @Override
    public void close() {
        vertx.close().toCompletionStage().toCompletableFuture().join();
        admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }

    private static void admin(String sql) {
        try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl("postgres"), "postgres", "");
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql, e);
        }
    }
}
