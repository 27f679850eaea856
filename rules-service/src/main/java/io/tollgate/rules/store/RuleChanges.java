package io.tollgate.rules.store;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.tollgate.rules.config.RulesConfig;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.pubsub.PgSubscriber;

/**
 * Hears every committed rules version and directory change, whichever instance committed it, through PostgreSQL
 * LISTEN/NOTIFY (one channel: a rules version's payload is its number, a directory change's
 * {@code directory:<seq>}), and pokes this instance's watchers of that kind. A poke carries nothing: each
 * watcher reads what it has not sent yet from the database, so coalesced notifications lose nothing, and after a
 * reconnect (when notifications sent meanwhile are gone) one poke of each kind makes every watcher catch up.
 */
@ApplicationScoped
public class RuleChanges {

    private static final Logger LOG = Logger.getLogger(RuleChanges.class);
    private static final long RECONNECT_MS = 1_000;

    private final Set<Runnable> listeners = ConcurrentHashMap.newKeySet();
    private final Set<Runnable> directoryListeners = ConcurrentHashMap.newKeySet();
    private final Vertx vertx;
    private final String channel;
    private final PgSubscriber subscriber;
    private volatile boolean stopping;
    private volatile boolean listening;

    RuleChanges(Vertx vertx, RulesConfig config,
            @ConfigProperty(name = "quarkus.datasource.reactive.url") String url,
            @ConfigProperty(name = "quarkus.datasource.username") Optional<String> user,
            @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password) {
        this.vertx = vertx;
        this.channel = config.watch().channel();
        PgConnectOptions options = PgConnectOptions.fromUri(url.split(",")[0].trim());
        user.ifPresent(options::setUser);
        password.ifPresent(options::setPassword);
        // reconnect forever: a watcher must not go deaf because PostgreSQL restarted once
        this.subscriber = PgSubscriber.subscriber(vertx, options).reconnectPolicy(retries -> RECONNECT_MS);
    }

    void start(@Observes StartupEvent event) {
        subscriber.channel(channel)
                .handler(payload -> {
                    if (payload != null && payload.startsWith(DirectoryLog.NOTIFY_PREFIX)) {
                        directoryListeners.forEach(Runnable::run);
                    } else {
                        listeners.forEach(Runnable::run);
                    }
                })
                // after a (re)connect, notifications sent meanwhile are lost: have every watcher re-read
                .subscribeHandler(v -> {
                    listening = true;
                    listeners.forEach(Runnable::run);
                    directoryListeners.forEach(Runnable::run);
                });
        subscriber.closeHandler(v -> {
            listening = false;
            if (!stopping) {
                LOG.warn("LISTEN connection to PostgreSQL closed; watchers hear nothing until it reconnects");
            }
        });
        connect();
    }

    void stop(@Observes ShutdownEvent event) {
        stopping = true;
        subscriber.close();
    }

    /** Calls {@code listener} after every committed version; returns what unsubscribes it. */
    public Runnable subscribe(Runnable listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** Calls {@code listener} after every committed directory change (or several); returns what unsubscribes it. */
    public Runnable subscribeDirectory(Runnable listener) {
        directoryListeners.add(listener);
        return () -> directoryListeners.remove(listener);
    }

    /** Whether the LISTEN is in place, so that commits from any instance reach this one's watchers. */
    public boolean listening() {
        return listening;
    }

    /** How many watchers listen now. */
    public int listenerCount() {
        return listeners.size();
    }

    private void connect() {
        subscriber.connect().onComplete(done -> {
            if (done.succeeded()) {
                LOG.infof("listening on PostgreSQL channel %s", channel);
            } else {
                LOG.warnf("cannot LISTEN on PostgreSQL yet (%s); retrying", done.cause().getMessage());
                vertx.setTimer(RECONNECT_MS, id -> connect());
            }
        });
    }
}
