package dev.fairway.testing;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.codec.dns.DatagramDnsQuery;
import io.netty.handler.codec.dns.DatagramDnsQueryDecoder;
import io.netty.handler.codec.dns.DatagramDnsResponse;
import io.netty.handler.codec.dns.DatagramDnsResponseEncoder;
import io.netty.handler.codec.dns.DefaultDnsRawRecord;
import io.netty.handler.codec.dns.DnsQuestion;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import io.netty.handler.codec.dns.DnsSection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real DNS server on 127.0.0.1 (UDP, a free port) built on Netty's DNS codec, whose answers the
 * test sets and changes while it runs.
 *
 * <p>Example: {@code dns.a("api.test", 30, "127.0.0.1", "127.0.0.2")} makes {@code api.test A}
 * answer two addresses with TTL 30; {@code dns.srv("_api._tcp.test", new Srv(10, 5, 8080,
 * "127.0.0.1", 2))} one SRV record; {@code dns.failing(true)} makes every answer SERVFAIL.
 */
public final class TestDnsServer implements AutoCloseable {
  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Map<String, List<Object>> answers = new ConcurrentHashMap<>();
  private final AtomicInteger queries = new AtomicInteger();
  private volatile boolean failing;
  private final Channel channel;

  /**
   * One SRV record.
   *
   * @param target a host name or, for tests on loopback, an IPv4 address written as a name
   */
  public record Srv(int priority, int weight, int port, String target, long ttl) {
  }

  private record A(String ip, long ttl) {
  }

  private TestDnsServer() throws InterruptedException {
    channel = new Bootstrap().group(group).channel(NioDatagramChannel.class)
        .handler(new ChannelInitializer<DatagramChannel>() {
          @Override
          protected void initChannel(DatagramChannel ch) {
            ch.pipeline().addLast(new DatagramDnsQueryDecoder(), new DatagramDnsResponseEncoder(), new Answerer());
          }
        }).bind("127.0.0.1", 0).sync().channel();
  }

  public static TestDnsServer start() {
    try {
      return new TestDnsServer();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** {@code 127.0.0.1:PORT}, for {@code discovery.server}. */
  public String address() {
    return "127.0.0.1:" + ((InetSocketAddress) channel.localAddress()).getPort();
  }

  /** Sets the A records of {@code name}; none makes it answer NOERROR with no records. */
  public void a(String name, long ttl, String... ips) {
    answers.put(key(name, DnsRecordType.A), Arrays.stream(ips).<Object>map(ip -> new A(ip, ttl)).toList());
  }

  /** Sets the SRV records of {@code name}. */
  public void srv(String name, Srv... records) {
    answers.put(key(name, DnsRecordType.SRV), List.of((Object[]) records));
  }

  /** While true, every query gets SERVFAIL. */
  public void failing(boolean on) {
    failing = on;
  }

  /** Queries received so far. */
  public int queries() {
    return queries.get();
  }

  private static String key(String name, DnsRecordType type) {
    String n = name.endsWith(".") ? name : name + ".";
    return type.name() + " " + n.toLowerCase(Locale.ROOT);
  }

  private final class Answerer extends SimpleChannelInboundHandler<DatagramDnsQuery> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramDnsQuery query) throws Exception {
      queries.incrementAndGet();
      DnsQuestion q = query.recordAt(DnsSection.QUESTION);
      DatagramDnsResponse response = new DatagramDnsResponse(query.recipient(), query.sender(), query.id());
      response.setRecursionAvailable(true);
      response.addRecord(DnsSection.QUESTION, q);
      if (failing) {
        response.setCode(DnsResponseCode.SERVFAIL);
      } else {
        List<Object> records = answers.get(key(q.name(), q.type()));
        if (records == null) {
          response.setCode(DnsResponseCode.NXDOMAIN);
        } else {
          for (Object r : records) {
            response.addRecord(DnsSection.ANSWER, record(q, r));
          }
        }
      }
      ctx.writeAndFlush(response);
    }

    private DefaultDnsRawRecord record(DnsQuestion q, Object r) throws Exception {
      if (r instanceof A a) {
        return new DefaultDnsRawRecord(q.name(), DnsRecordType.A, a.ttl(),
            Unpooled.wrappedBuffer(InetAddress.getByName(a.ip()).getAddress()));
      }
      Srv s = (Srv) r;
      ByteBuf data = Unpooled.buffer();
      data.writeShort(s.priority()).writeShort(s.weight()).writeShort(s.port());
      for (String label : s.target().split("\\.")) {
        byte[] bytes = label.getBytes(StandardCharsets.US_ASCII);
        data.writeByte(bytes.length).writeBytes(bytes);
      }
      data.writeByte(0);
      return new DefaultDnsRawRecord(q.name(), DnsRecordType.SRV, s.ttl(), data);
    }
  }

  /** Stops answering: later queries time out. Closing twice is fine. */
  @Override
  public void close() {
    if (group.isShuttingDown()) {
      return;
    }
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
