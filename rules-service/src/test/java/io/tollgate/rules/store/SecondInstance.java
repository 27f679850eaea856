package io.tollgate.rules.store;

import org.eclipse.microprofile.config.ConfigProvider;

import io.tollgate.rules.config.RulesConfig;
import io.tollgate.rules.domain.RuleCodec;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;

/**
 * What a second rules-service instance would hold: its own Vert.x, its own connection pool, its own
 * LISTEN connection, built from the production classes. It shares nothing with the app under test but
 * the PostgreSQL database.
 */
final class SecondInstance implements AutoCloseable {

    final Vertx vertx = Vertx.vertx();
    final RuleStore store;
    final RuleChanges changes;
    private final io.vertx.mutiny.sqlclient.Pool pool;

    SecondInstance(RulesConfig config) {
        String url = ConfigProvider.getConfig().getValue("quarkus.datasource.reactive.url", String.class);
        PgConnectOptions options = PgConnectOptions.fromUri(url).setUser("postgres");
        pool = io.vertx.mutiny.sqlclient.Pool.newInstance(
                PgBuilder.pool().with(new PoolOptions().setMaxSize(2)).connectingTo(options).using(vertx).build());
        RuleCodec codec = new RuleCodec();
        store = new RuleStore(pool, codec, new ChangeLog(codec, config));
        changes = new RuleChanges(vertx, config, url, java.util.Optional.of("postgres"), java.util.Optional.empty());
        changes.start(null);
    }

    @Override
    public void close() {
        changes.stop(null);
        pool.closeAndAwait();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }
}
