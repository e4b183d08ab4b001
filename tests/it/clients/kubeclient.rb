# A user's program with the Ruby client, kubeclient (Debian's ruby-kubeclient):
# the server, the CA file unless the test withholds it, the token unless
# anonymous, then get_pods or get_pod, its exception uncaught so that Ruby
# prints it with its backtrace. tests/it/clients.rs runs it with U (server
# URL), CA, T (token), NS and NAME in the environment.
require 'kubeclient'

ssl = { verify_ssl: OpenSSL::SSL::VERIFY_PEER }
ssl[:ca_file] = ENV['CA'] unless ENV['CA'].to_s.empty?
auth = ENV['T'].to_s.empty? ? {} : { bearer_token: ENV['T'] }
client = Kubeclient::Client.new(
  "#{ENV['U']}/api", 'v1',
  ssl_options: ssl, auth_options: auth,
  # Only a guard against a hang: the server is local.
  timeouts: { open: 10, read: 10 }
)
if ENV['NAME'].to_s.empty?
  puts client.get_pods(namespace: ENV['NS']).size
else
  puts client.get_pod(ENV['NAME'], ENV['NS']).metadata.name
end
