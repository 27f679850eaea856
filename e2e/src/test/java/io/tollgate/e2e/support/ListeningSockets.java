package io.tollgate.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The TCP sockets a process listens on, read as {@code ss -ltnp} reads them: its open socket inodes
 * ({@code /proc/<pid>/fd}) matched with the listening sockets of {@code /proc/net/tcp} and {@code tcp6}. Linux
 * only; nothing is sent anywhere.
 */
public final class ListeningSockets {

    private static final String LISTEN = "0A";

    private ListeningSockets() {
    }

    /** The addresses {@code pid} listens on (empty for a process that is gone). */
    public static List<InetSocketAddress> of(long pid) {
        Set<String> inodes = socketInodes(pid);
        List<InetSocketAddress> listening = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : lines(Path.of(table))) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && f[3].equals(LISTEN) && inodes.contains(f[9])) {
                    listening.add(address(f[1]));
                }
            }
        }
        return listening;
    }

    private static Set<String> socketInodes(long pid) {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            fds.forEach(fd -> {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (IOException e) {
                    // a descriptor closed while listed
                }
            });
        } catch (NoSuchFileException e) {
            return inodes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return inodes;
    }

    /** {@code 0100007F:1F90} (IPv4) or 32 hex digits (IPv6), each 32-bit word in host (little-endian) order. */
    static InetSocketAddress address(String hex) {
        String[] parts = hex.split(":");
        String host = parts[0];
        byte[] bytes = new byte[host.length() / 2];
        for (int word = 0; word < bytes.length / 4; word++) {
            for (int b = 0; b < 4; b++) {
                int at = word * 8 + (3 - b) * 2;
                bytes[word * 4 + b] = (byte) Integer.parseInt(host.substring(at, at + 2), 16);
            }
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(bytes), Integer.parseInt(parts[1], 16));
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(hex, e);
        }
    }

    private static List<String> lines(Path table) {
        try {
            return Files.readAllLines(table).stream().skip(1).toList();
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
