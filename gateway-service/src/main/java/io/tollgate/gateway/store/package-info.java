/**
 * The counter store: {@link io.tollgate.gateway.store.CounterStore} checks and spends a client's
 * {@link io.tollgate.gateway.store.Bucket}s all at once, in one script call;
 * {@link io.tollgate.gateway.store.RedisCounterStore}
 * runs the scripts on the shard that owns the key (one pinned connection per event loop, the loop's checks
 * coalesced), {@link io.tollgate.gateway.store.InMemoryCounterStore} keeps the counters in this process
 * ({@code tollgate.store.type=memory}), and {@link io.tollgate.gateway.store.StoreProducer} picks one.
 */
package io.tollgate.gateway.store;
