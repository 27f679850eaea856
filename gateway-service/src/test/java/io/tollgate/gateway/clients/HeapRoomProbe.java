package io.tollgate.gateway.clients;

/** Prints what {@link HeapRoom} reads in the JVM it runs in, for {@link HeapRoomTest}: one {@code name=value} a line. */
final class HeapRoomProbe {

    private HeapRoomProbe() {
    }

    public static void main(String[] args) {
        HeapRoom room = HeapRoom.ofThisJvm();
        StringBuilder out = new StringBuilder();
        out.append("heapMb=").append(room.heapMb()).append('\n');
        for (int clients : new int[]{5, 50_000, 1_000_000}) {
            out.append("holds").append(clients).append('=').append(room.holds(clients)).append('\n');
        }
        out.append("xmxMbFor1000000=").append(room.xmxMbFor(1_000_000)).append('\n');
        System.out.print(out); // the test reads the probe's standard output
    }
}
