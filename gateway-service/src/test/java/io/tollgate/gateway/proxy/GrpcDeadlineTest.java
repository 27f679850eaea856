package io.tollgate.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GrpcDeadlineTest {

    @Test
    void everyUnitReadsAsMilliseconds() {
        assertThat(GrpcDeadline.millis("2H")).isEqualTo(7_200_000);
        assertThat(GrpcDeadline.millis("3M")).isEqualTo(180_000);
        assertThat(GrpcDeadline.millis("5S")).isEqualTo(5_000);
        assertThat(GrpcDeadline.millis("250m")).isEqualTo(250);
        assertThat(GrpcDeadline.millis("99999999u")).isEqualTo(99_999);
        assertThat(GrpcDeadline.millis("12345678n")).isEqualTo(12);
        assertThat(GrpcDeadline.millis("10n")).as("under a millisecond: as good as passed").isEqualTo(1);
        assertThat(GrpcDeadline.millis("0m")).isEqualTo(1);
    }

    @Test
    void anythingElseIsNoDeadline() {
        assertThat(GrpcDeadline.millis(null)).isEqualTo(-1);
        assertThat(GrpcDeadline.millis("")).isEqualTo(-1);
        assertThat(GrpcDeadline.millis("m")).as("no digits").isEqualTo(-1);
        assertThat(GrpcDeadline.millis("100")).as("no unit").isEqualTo(-1);
        assertThat(GrpcDeadline.millis("100s")).as("units are case-sensitive: s is not S").isEqualTo(-1);
        assertThat(GrpcDeadline.millis("123456789S")).as("9 digits").isEqualTo(-1);
        assertThat(GrpcDeadline.millis("-5S")).isEqualTo(-1);
        assertThat(GrpcDeadline.millis(" 5S")).isEqualTo(-1);
        assertThat(GrpcDeadline.millis("1.5S")).isEqualTo(-1);
    }
}
