export const USAGE = `Herald — an assistant bot for Discord and Slack, and this command line.

Usage:
  herald                                  run the bot on every platform whose token is set,
                                          or an interactive chat shell when none is
  herald chat [TEXT] [--file FILE]... [--search|--no-search] [--think|--no-think] [--reasoning]
                                          --file attaches a text, code, PDF, image or audio file
                                          (repeatable; --image FILE attaches an image as before);
                                          files sent without TEXT are summarized or described
  herald describe IMAGE [PROMPT]
  herald transcribe AUDIO [--language auto|zh|en]
  herald say TEXT [--voice V] [--style S] [--sing] -o OUT.wav|OUT.pcm|OUT.ogg
  herald register [--guild ID]            register Discord slash commands (globally or for one guild)
  herald mcp list                         the MCP servers of MCP_CONFIG: state and tools
  herald mcp call SERVER TOOL [JSON]      call one MCP tool by its own name, with JSON arguments
  herald --help | --version

Configuration comes from the environment and .env (see .env.example).`;
