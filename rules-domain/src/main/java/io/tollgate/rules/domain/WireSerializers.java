package io.tollgate.rules.domain;

import java.io.IOException;
import java.time.Duration;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;

import io.tollgate.counter.Algorithm;

/**
 * Writers for the rule fields whose Java type has no wire form of its own, so that ANY Jackson mapper
 * (the codec's, or a Quarkus app's) writes a rule the same way.
 */
final class WireSerializers {

    private WireSerializers() {
    }

    /** {@code token_bucket}, not {@code TOKEN_BUCKET}. */
    static final class AlgorithmSerializer extends StdSerializer<Algorithm> {

        private static final long serialVersionUID = 1L;

        AlgorithmSerializer() {
            super(Algorithm.class);
        }

        @Override
        public void serialize(Algorithm value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeString(value.wireName());
        }
    }

    /** {@code 1m}, not {@code PT1M} nor seconds as a number. */
    static final class PeriodSerializer extends StdSerializer<Duration> {

        private static final long serialVersionUID = 1L;

        PeriodSerializer() {
            super(Duration.class);
        }

        @Override
        public void serialize(Duration value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeString(Periods.format(value));
        }
    }
}
