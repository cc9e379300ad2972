from astro_cli.main import main

main()
