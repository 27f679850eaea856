package io.tollgate.counter.testing;

/**
 * A private standalone {@code redis-server} for tests: free loopback port, its own temp dir, no
 * persistence; started and PING-checked by the constructor, stopped by {@link #close()}.
 */
public final class RedisNode implements AutoCloseable {

    private final RedisProcess process;

    /** Starts the server; fails with a clear message when {@code redis-server} is not installed. */
    public RedisNode() {
        this.process = RedisProcess.start(false);
    }

    /** The loopback port it listens on. */
    public int port() {
        return process.port();
    }

    /** {@code redis://127.0.0.1:<port>}, as {@code quarkus.redis.hosts} takes it. */
    public String address() {
        return process.address();
    }

    /** Stops the server and deletes its temp dir. */
    @Override
    public void close() {
        process.close();
    }
}
