package io.tollgate.counter;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.StringJoiner;

import io.vertx.redis.client.Response;

/** Reads a bucket's stored value (a tag byte, then little-endian doubles) as text for assertions. */
final class StoredValues {

    private StoredValues() {
    }

    /** E.g. {@code t:8:1796256000500000:1796256001700000}; whole numbers without a decimal point; null when absent. */
    static String describe(Response value) {
        if (value == null) {
            return null;
        }
        ByteBuffer bytes = ByteBuffer.wrap(value.toBytes()).order(ByteOrder.LITTLE_ENDIAN);
        StringJoiner text = new StringJoiner(":");
        text.add(String.valueOf((char) bytes.get()));
        while (bytes.remaining() >= Double.BYTES) {
            double number = bytes.getDouble();
            text.add(number == Math.rint(number) ? Long.toString((long) number) : Double.toString(number));
        }
        return text.toString();
    }
}
