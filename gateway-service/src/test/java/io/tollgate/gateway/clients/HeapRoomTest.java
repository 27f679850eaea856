package io.tollgate.gateway.clients;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The heap check read in JVMs started as the launcher starts a gateway ({@code -XX:+UseSerialGC -Xmx64m}): the
 * heap it names is the one given, a few clients or tens of thousands fit, a million do not, and the {@code -Xmx} it
 * advises for them holds them.
 */
class HeapRoomTest {

    @Test
    void theLaunchersHeapHoldsTensOfThousandsOfClientsAndNotAMillion() throws Exception {
        Map<String, String> room = probe("-Xmx64m");

        assertThat(room.get("heapMb")).as("the -Xmx given, not the heap less a survivor space").isEqualTo("64");
        assertThat(room.get("holds5")).isEqualTo("true");
        assertThat(room.get("holds50000")).isEqualTo("true");
        assertThat(room.get("holds1000000")).isEqualTo("false");
    }

    @Test
    void theHeapAdvisedForAMillionClientsHoldsThem() throws Exception {
        String advised = probe("-Xmx64m").get("xmxMbFor1000000");

        Map<String, String> room = probe("-Xmx" + advised + "m");

        assertThat(room.get("holds1000000")).as("at -Xmx%sm", advised).isEqualTo("true");
        assertThat(probe("-Xmx" + (Long.parseLong(advised) - 4) + "m").get("holds1000000"))
                .as("a few MB less is too little: the advice is no larger than it needs").isEqualTo("false");
    }

    @Test
    void theRoomNeededGrowsByTheMeasuredBytesPerClient() {
        HeapRoom room = new HeapRoom(HeapRoom.needed(1000), 3 * HeapRoom.needed(1000) / 2);
        assertThat(room.holds(1000)).isTrue();
        assertThat(room.holds(1001)).isFalse();
        assertThat(HeapRoom.needed(1_000_000) - HeapRoom.needed(0)).isEqualTo(80_000_000L);
    }

    /** What {@link HeapRoom#ofThisJvm} reads in a JVM of the serial collector with {@code heap}. */
    private static Map<String, String> probe(String heap) throws IOException, InterruptedException, URISyntaxException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", heap, "-cp", where(HeapRoom.class) + File.pathSeparator + where(HeapRoomProbe.class),
                HeapRoomProbe.class.getName()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the probe ends").isTrue();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(out).isZero();
        Map<String, String> read = new HashMap<>();
        for (String line : out.strip().split("\n")) {
            String[] pair = line.split("=", 2);
            read.put(pair[0], pair[1]);
        }
        return read;
    }

    private static String where(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
