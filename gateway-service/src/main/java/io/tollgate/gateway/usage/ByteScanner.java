package io.tollgate.gateway.usage;

/** Reads a body as its bytes come, in ranges of whatever arrays hold them, and says what it used at the end. */
interface ByteScanner {

    /** The next bytes, {@code bytes[from]} to {@code bytes[to - 1]}; read now, never kept. */
    void feed(byte[] bytes, int from, int to);

    /** The body ended: what it said it used. The scanner is done with: what it holds goes. */
    Usage end();

    /** The body broke off: the scanner is done with, and what it holds goes. */
    default void close() {
    }
}
